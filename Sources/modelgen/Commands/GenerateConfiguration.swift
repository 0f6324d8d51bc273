import Foundation
import ModelGenCore

/// The options of `modelgen generate` a `modelgen.json` holds: what `--config FILE` reads, and
/// what the build-tool plugin hands over for the file beside a model. Every key is optional;
/// options given on the command line win over the file's.
///
/// ```json
/// { "access": "internal", "configuration": "Cloud", "templates": "Templates", "observable": true,
///   "modelVersion": "Journal 2" }
/// ```
struct GenerateConfiguration: Decodable, Equatable {
    var access: SwiftGenerationOptions.Access?
    var configuration: String?
    /// A folder of templates, relative to the file.
    var templates: String?
    var observable: Bool?
    /// The version of the bundle to generate, instead of its current one (`--model-version`).
    var modelVersion: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case access, configuration, templates, observable, modelVersion
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let known = CodingKeys.allCases.map(\.rawValue)
        let all = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            throw Problem("unknown option '\(unknown)' (known: \(known.joined(separator: ", ")))")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        access = try container.decodeIfPresent(SwiftGenerationOptions.Access.self, forKey: .access)
        configuration = try container.decodeIfPresent(String.self, forKey: .configuration)
        templates = try container.decodeIfPresent(String.self, forKey: .templates)
        observable = try container.decodeIfPresent(Bool.self, forKey: .observable)
        modelVersion = try container.decodeIfPresent(String.self, forKey: .modelVersion)
    }

    /// Reads the file at `path`; the error message names the file and what is wrong in it.
    static func load(_ path: String) -> Result<GenerateConfiguration, Problem> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(Problem("\(path): cannot be read"))
        }
        do {
            return .success(try JSONDecoder().decode(GenerateConfiguration.self, from: data))
        } catch let problem as Problem {
            return .failure(Problem("\(path): \(problem.message)"))
        } catch let error as DecodingError {
            return .failure(Problem("\(path): \(describe(error))"))
        } catch {
            return .failure(Problem("\(path): \(error)"))
        }
    }

    /// A decoding error as a person reads it: which option, what it must be.
    private static func describe(_ error: DecodingError) -> String {
        func expected(_ key: String) -> String {
            switch CodingKeys(rawValue: key) {
            case .access:
                "one of " + SwiftGenerationOptions.Access.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            case .observable: "true or false"
            default: "a string"
            }
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            guard let key = context.codingPath.first?.stringValue else { return "expected a JSON object" }
            return "'\(key)' must be \(expected(key))"
        case .dataCorrupted(let context):
            guard let key = context.codingPath.first?.stringValue else { return "not valid JSON" }
            return "'\(key)' must be \(expected(key))"
        case .keyNotFound(let key, _):
            return "missing '\(key.stringValue)'"
        @unknown default:
            return "\(error)"
        }
    }

    /// What is wrong with a configuration file.
    struct Problem: Error, Equatable {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
