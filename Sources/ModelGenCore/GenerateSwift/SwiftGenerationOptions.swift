/// Choices for the generated Swift.
public struct SwiftGenerationOptions: Sendable {
    /// The access level of generated declarations.
    public enum Access: String, Sendable, CaseIterable {
        case `public`, `internal`
    }

    public var access: Access
    /// The model file's name for the header (`GradeBook.xcdatamodeld`).
    public var sourceName: String

    public init(access: Access = .public, sourceName: String) {
        self.access = access
        self.sourceName = sourceName
    }
}
