import ModelGenRuntime

/// The `User` entity generates a category (Category/Extension code generation): the class is
/// ours, its properties come from the generated extension.
final class User: ManagedObject {}
