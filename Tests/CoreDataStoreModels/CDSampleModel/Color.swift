import Foundation

/// The app's own type of `Car.color` (a transformable with a custom class and the app's
/// `ColorTransformer`): what a program using this model provides. Its values are opaque to the
/// runtime; the corpus stores hold none.
public struct Color: Codable, Hashable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double
}
