import Foundation
import ModelGenRuntime

/// The `User` entity generates a category (Category/Extension code generation): the class is
/// ours, its properties come from the generated extension.
final class User: ManagedObject {}

extension User: ObjectLifecycle {
    /// Every new user gets an identifier of its own (one set afterwards replaces it).
    func awakeFromInsert() { id = UUID() }
}
