/// Errors of the environment (unreadable input, unwritable output), as opposed to problems in a
/// model, which are diagnostics.
public enum ModelGenError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadableFile(path: String, reason: String)
    case unwritableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read '\(path)': \(reason)"
        case .unwritableFile(let path, let reason): "cannot write '\(path)': \(reason)"
        }
    }
}
