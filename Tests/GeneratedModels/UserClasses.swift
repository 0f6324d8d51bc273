import ModelGenRuntime

// The classes of `category` entities, written by hand as their generated extensions expect.

/// Library's `Note` (codeGenerationType="category").
public final class Note: ManagedObject {}

/// HelloCoreData's category entity.
public final class User: ManagedObject {}

/// Gallery's `Photo` (codeGenerationType="category"), a sub-entity of the generated `Artwork`
/// with the generated `Print` and the category `Polaroid` below it.
public class Photo: Artwork {}

/// Gallery's `Polaroid` (codeGenerationType="category"), below the category `Photo`.
public final class Polaroid: Photo {}

/// Tasks' `Label` (codeGenerationType="category"), with typed attributes in the runtime's storage.
public final class Label: ManagedObject {}
