/// Choices for the generated Swift.
public struct SwiftGenerationOptions: Sendable {
    /// The access level of generated declarations.
    public enum Access: String, Sendable, CaseIterable {
        case `public`, `internal`
    }

    public var access: Access
    /// The model file's name for the header (`GradeBook.xcdatamodeld`).
    public var sourceName: String

    /// Write everything into one file of this name (the model's code first, then each entity's,
    /// without their own headers and imports) instead of one file per entity: what a build tool
    /// plugin needs, whose outputs must be known before the model is read.
    public var singleFile: String?

    public init(access: Access = .public, sourceName: String, singleFile: String? = nil) {
        self.access = access
        self.sourceName = sourceName
        self.singleFile = singleFile
    }
}
