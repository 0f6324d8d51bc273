import Foundation
import GeneratedModels
import Testing

@_spi(Generated) @testable import ModelGenRuntime

/// `Models/Gallery`: a `category` entity (`Photo`, the user's class, its values in the runtime's
/// storage) between generated classes — below the generated `Artwork`, above the generated
/// `Print` — with a `category` entity below it (`Polaroid`) and a generated sibling (`Sketch`). Every value, inherited or own, typed or stored by
/// the runtime, must reach the row and come back.
@Suite struct GalleryCategoryTests {
    static func withStore(_ backend: Backend, _ body: (PersistentStore, TemporaryStore.Location) throws -> Void) throws
    {
        try TemporaryStore.with(GalleryModel.model, on: backend, body)
    }

    @Test func eachClassInTheLineageKnowsItsOwnEntity() {
        #expect(Artwork.entityDescription.name == "Artwork")
        #expect(Photo.entityDescription.name == "Photo")
        #expect(Print.entityDescription.name == "Print")
        #expect(Sketch.entityDescription.name == "Sketch")
        #expect(Photo.slot(for: \Photo.exposure) == 3)
        #expect(Photo.slot(for: \Photo.title) == 0)
        #expect(Artwork.slot(for: \Photo.exposure) == nil, "Artwork has no such attribute")
        #expect(Print.slot(for: \Print.copies) == 6)
        #expect(Photo.relationshipIndex(for: \Photo.artist) == 0)
        #expect(Polaroid.entityDescription.name == "Polaroid")
        #expect(Polaroid.slot(for: \Polaroid.film) == 6 && Polaroid.slot(for: \Polaroid.exposure) == 3)
        #expect(Polaroid.relationshipIndex(for: \Polaroid.artist) == 0)
    }

    // `_entity` values are FNV-1a (32 bits, top bit cleared) of the entity names, worked out apart
    // from the code: Photo 1394710915, Polaroid 2128570709, Print 1748110632, Sketch 21996201.

    /// A `category` entity below another: its own values and those of the category above it live
    /// in the runtime's storage, start with their defaults, and are saved and read back.
    @Test(arguments: Backend.allCases) func aCategoryBelowACategoryKeepsEveryValue(_ backend: Backend) throws {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let instant = context.insert(Polaroid.self)
            instant.title = "Beach"
            #expect(instant.film == "SX-70" && instant.exposure == 0 && instant.rating == 3)
            let other = context.insert(Polaroid.self)
            other.title = "Dunes"
            other.film = "600"
            other.camera = "OneStep"
            other.rating = nil
            try context.save()
            #expect(
                try TemporaryStore.rows(
                    path,
                    #"SELECT "_entity", "title", "film", "camera", "exposure", "rating" FROM "artwork" ORDER BY "_pk""#)
                    == TemporaryStore.text(
                        [
                            ["2128570709", "Beach", "SX-70", "NULL", "0.0", "3"],
                            ["2128570709", "Dunes", "600", "OneStep", "0.0", "NULL"],
                        ], on: backend))
            let fresh = store.newContext()
            let loaded = try Polaroid.fetch(in: fresh, where: \Polaroid.film == "600")
            #expect(
                loaded.map(\.title) == ["Dunes"] && loaded.first?.camera == "OneStep" && loaded.first?.rating == nil)
            #expect(
                try fresh.fetchAll(Photo.self).map { String(describing: type(of: $0)) } == ["Polaroid", "Polaroid"])
            loaded[0].film = "i-Type"
            loaded[0].title = "Dunes at dusk"
            try fresh.save()
            #expect(
                try TemporaryStore.rows(path, #"SELECT "title", "film" FROM "artwork" WHERE "_pk" = 2"#) == [
                    ["Dunes at dusk", "i-Type"]
                ])
        }
    }

    @Test(arguments: Backend.allCases) func insertedValuesOfEveryLevelAreStoredAndReadBack(_ backend: Backend) throws {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let artist = Artist(in: context, name: "Vivian")
            let photo = context.insert(Photo.self)
            photo.title = "Chicago"
            photo.year = 1956
            photo.camera = "Rolleiflex"
            photo.exposure = 0.125
            photo.price = Decimal(string: "1200.50")
            photo.artist = artist
            let print = context.insert(Print.self)
            print.title = "Chicago, print"
            print.exposure = 2
            print.copies = 12
            let sketch = Sketch(in: context, title: "Study")
            sketch.medium = "charcoal"
            try context.save()

            #expect(
                try TemporaryStore.rows(
                    path,
                    #"SELECT "_entity", "title", "year", "camera", "exposure", "price", "copies", "medium" FROM "artwork" ORDER BY "_pk""#
                )
                    == TemporaryStore.text(
                        [
                            // Columns of other entities of the table take their DDL defaults (`copies` 1, `exposure` 0.0).
                            ["1394710915", "Chicago", "1956", "Rolleiflex", "0.125", "1200.5", "1", "NULL"],
                            ["1748110632", "Chicago, print", "NULL", "NULL", "2.0", "NULL", "12", "NULL"],
                            ["21996201", "Study", "NULL", "NULL", "0.0", "NULL", "1", "charcoal"],
                        ], on: backend))

            let other = store.newContext()
            let works = try other.fetchAll(Artwork.self)
            #expect(works.map { String(describing: type(of: $0)) } == ["Photo", "Print", "Sketch"])
            let loadedPhoto = try #require(works[0] as? Photo)
            #expect(loadedPhoto.title == "Chicago" && loadedPhoto.year == 1956)
            #expect(loadedPhoto.camera == "Rolleiflex" && loadedPhoto.exposure == 0.125)
            #expect(loadedPhoto.price == Decimal(string: "1200.50"))
            #expect(loadedPhoto.artist?.name == "Vivian")
            let loadedPrint = try #require(works[1] as? Print)
            #expect(loadedPrint.title == "Chicago, print" && loadedPrint.exposure == 2 && loadedPrint.copies == 12)
            #expect((works[2] as? Sketch)?.medium == "charcoal")
        }
    }

    /// A new object's runtime-stored attributes start with the model's defaults, which are saved
    /// when never set; an optional attribute with a default can be set to nil.
    @Test(arguments: Backend.allCases) func defaultsOfRuntimeStoredAttributesAreSavedAndNilSticks(_ backend: Backend)
        throws
    {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let photo = context.insert(Photo.self)
            photo.title = "Untouched"
            let cleared = context.insert(Photo.self)
            cleared.title = "Cleared"
            #expect(cleared.rating == 3 && cleared.exposure == 0)
            cleared.rating = nil
            #expect(cleared.rating == nil)
            try context.save()
            #expect(
                try TemporaryStore.rows(
                    path, #"SELECT "title", "exposure", "rating", "camera" FROM "artwork" ORDER BY "_pk""#)
                    == TemporaryStore.text(
                        [["Untouched", "0.0", "3", "NULL"], ["Cleared", "0.0", "NULL", "NULL"]], on: backend))
            let loaded = try store.newContext().fetchAll(Photo.self)
            #expect(loaded.map(\.rating) == [3, nil])
            #expect(loaded.map(\.exposure) == [0, 0])
        }
    }

    @Test(arguments: Backend.allCases) func changesOfInheritedAndOwnValuesAreSaved(_ backend: Backend) throws {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let photo = context.insert(Photo.self)
            photo.title = "Before"
            photo.exposure = 1
            let print = context.insert(Print.self)
            print.title = "Print"
            try context.save()

            photo.title = "After"
            print.exposure = 4
            print.copies = 3
            try context.save()
            photo.camera = "Leica"
            try context.save()
            #expect(
                try TemporaryStore.rows(
                    path, #"SELECT "title", "camera", "exposure", "copies" FROM "artwork" ORDER BY "_pk""#)
                    == TemporaryStore.text(
                        [["After", "Leica", "1.0", "1"], ["Print", "NULL", "4.0", "3"]], on: backend))
            let loaded = try store.newContext().fetchAll(Photo.self)
            #expect(loaded.map(\.title) == ["After", "Print"])
            #expect(loaded.map(\.exposure) == [1, 4])
        }
    }

    @Test(arguments: Backend.allCases) func typedPredicatesAndKeysReachEveryLevel(_ backend: Backend) throws {
        try Self.withStore(backend) { store, _ in
            let context = store.newContext()
            for (title, exposure) in [("Dim", 2.0), ("Bright", 0.01), ("Mid", 0.5)] {
                let photo = context.insert(Photo.self)
                photo.title = title
                photo.exposure = exposure
            }
            let print = context.insert(Print.self)
            print.title = "Long"
            print.exposure = 8
            try context.save()

            let fresh = store.newContext()
            let slow = try Photo.fetch(
                in: fresh, where: \Photo.exposure >= 0.5, sortedBy: [ObjectSortDescriptor(\Photo.title)])
            #expect(slow.map(\.title) == ["Dim", "Long", "Mid"])
            let named = try Photo.fetch(in: fresh, where: \Photo.title == "Bright")
            #expect(named.map(\.exposure) == [0.01])
            let format = try Photo.fetch(
                in: fresh, where: ObjectPredicate<Photo>(format: "exposure > %@ AND title BEGINSWITH %@", 1.0, "D"))
            #expect(format.map(\.title) == ["Dim"])

            let mid = try #require(named.first)
            #expect(try mid.value(forKey: "exposure") as? Double == 0.01)
            #expect(try mid.value(forKey: "title") as? String == "Bright")
            try mid.setValue(3, forKey: "year")
            try mid.setValue(0.25, forKey: "exposure")
            #expect(throws: DatabaseError.self) { try mid.setValue("fast", forKey: "exposure") }
            try fresh.save()
            let reloaded = try #require(try Photo.first(in: store.newContext(), where: \Photo.title == "Bright"))
            #expect(reloaded.year == 3 && reloaded.exposure == 0.25)
        }
    }
}
