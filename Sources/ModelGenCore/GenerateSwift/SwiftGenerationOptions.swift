/// Choices for the generated Swift.
public struct SwiftGenerationOptions: Sendable {
    /// The access level of generated declarations.
    public enum Access: String, Sendable, CaseIterable, Decodable {
        case `public`, `package`, `internal`

        /// The modifier of generated declarations (`"public "`, `"package "`, `""`).
        var modifier: String {
            switch self {
            case .public: "public "
            case .package: "package "
            case .internal: ""
            }
        }

        /// The modifiers of overrides and witnesses of the runtime's members for generated code
        /// (`@_spi(Generated)` when public, so they stay out of the program's interface).
        var runtimeFacingModifier: String {
            switch self {
            case .public: "@_spi(Generated) public "
            case .package: "package "
            case .internal: ""
            }
        }
    }

    public var access: Access
    /// The model file's name for the header (`GradeBook.xcdatamodeld`).
    public var sourceName: String

    /// Write everything into one file of this name (the model's code first, then each entity's,
    /// without their own headers and imports) instead of one file per entity: what a build tool
    /// plugin needs, whose outputs must be known before the model is read.
    public var singleFile: String?

    /// Make generated classes `Observable` (the Observation framework): their getters report
    /// reads and their setters, merges, refreshes and relationship changes report changes. Off,
    /// the generated code has none of it.
    public var observable: Bool

    public init(access: Access = .public, sourceName: String, singleFile: String? = nil, observable: Bool = false) {
        self.access = access
        self.sourceName = sourceName
        self.singleFile = singleFile
        self.observable = observable
    }
}
