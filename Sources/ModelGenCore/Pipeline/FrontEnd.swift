/// The front end: Parse → Resolve → Validate on one `contents` file, stopping after any stage
/// that reported an error.
public struct FrontEnd: Sendable {
    public init() {}

    /// Runs the front end; returns the model when no stage reported an error.
    public func run(_ file: SourceFile, diagnostics: DiagnosticEngine) -> ObjectModel? {
        guard let syntax = ModelParser().parse(file, diagnostics: diagnostics), !diagnostics.hasErrors else {
            return nil
        }
        let model = ModelResolver().resolve(syntax, diagnostics: diagnostics)
        guard !diagnostics.hasErrors else { return nil }
        ModelValidator().validate(model, diagnostics: diagnostics)
        return diagnostics.hasErrors ? nil : model
    }
}
