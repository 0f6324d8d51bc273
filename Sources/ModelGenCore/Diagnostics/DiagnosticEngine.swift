/// Collects the diagnostics of one pipeline run.
///
/// Stages report every problem they find and keep going; the pipeline asks `hasErrors` between
/// stages. An engine belongs to one run and is not shared between threads.
public final class DiagnosticEngine {
    public private(set) var diagnostics: [Diagnostic] = []
    /// When set, warnings are reported as errors (`--warnings-as-errors`).
    public let warningsAsErrors: Bool

    public init(warningsAsErrors: Bool = false) {
        self.warningsAsErrors = warningsAsErrors
    }

    public func report(_ diagnostic: Diagnostic) {
        var diagnostic = diagnostic
        if warningsAsErrors && diagnostic.severity == .warning {
            diagnostic.severity = .error
        }
        diagnostics.append(diagnostic)
    }

    public func report(_ message: DiagnosticMessage, at location: SourceLocation?, notes: [Diagnostic.Note] = []) {
        report(Diagnostic(message, at: location, notes: notes))
    }

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
    public var errorCount: Int { diagnostics.count { $0.severity == .error } }
    public var warningCount: Int { diagnostics.count { $0.severity == .warning } }

    /// The diagnostics in their canonical order (file, line, column, id), duplicates removed.
    public var sorted: [Diagnostic] {
        var seen = Set<Diagnostic>()
        return diagnostics.sorted().filter { seen.insert($0).inserted }
    }
}
