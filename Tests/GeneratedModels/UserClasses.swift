import ModelGenRuntime

// The classes of `category` entities, written by hand as their generated extensions expect.

/// Library's `Note` (codeGenerationType="category").
public final class Note: ManagedObject {}

/// HelloCoreData's category entity.
public final class User: ManagedObject {}
