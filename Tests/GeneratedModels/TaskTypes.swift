import Foundation
import ModelGenRuntime

// The program's own types of the Tasks model's typed attributes (`modelgen.type`,
// mogenerator's `attributeValueScalarType`, a transformable's `customClassName`).

/// `Task.priority`: an enum on an Integer 16 attribute with a default.
public enum Priority: Int16, Sendable, CaseIterable {
    case low = 0
    case normal = 1
    case high = 2
    case urgent = 3
}

/// `Task.state`: an enum on an optional String attribute.
public enum TaskState: String, Sendable, CaseIterable {
    case open, started, done
}

/// `Task.estimate`: a RawRepresentable struct (every raw value is one) on a required Integer 32
/// attribute without a default, whose raw type is `Int` rather than the column's `Int32`.
public struct Points: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
}

/// `Task.flags`: an option set on an optional Integer 64 attribute.
public struct TaskFlags: OptionSet, Hashable, Sendable {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public static let blocked = TaskFlags(rawValue: 1)
    public static let starred = TaskFlags(rawValue: 2)
    public static let recurring = TaskFlags(rawValue: 4)
}

/// `Project.kind` (mogenerator's `attributeValueScalarType`).
public enum ProjectKind: Int16, Sendable {
    case personal = 0
    case work = 1
}

/// `Label.style`, on a `category` entity.
public enum LabelStyle: String, Sendable {
    case plain, bold, outlined
}

/// `Task.checklist`: a transformable stored as JSON.
public struct Checklist: Codable, Hashable, Sendable {
    public struct Item: Codable, Hashable, Sendable {
        public var text: String
        public var done: Bool
        public init(text: String, done: Bool) {
            self.text = text
            self.done = done
        }
    }
    public var items: [Item]
    public init(items: [Item]) { self.items = items }
}

/// `Task.color`: stored by the value transformer registered as "ColorTransformer" (not Codable:
/// the transformer decides the bytes).
public struct Color: Hashable, Sendable {
    public var red: UInt8, green: UInt8, blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}
