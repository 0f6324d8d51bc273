import CDArtsyFolio23
import CDBookmarks5
import CDXCServer201
import Foundation
import ModelGenRuntime
import Testing

/// Writes through the runtime into copies of Core Data stores: inserts, updates, relinks (to-one,
/// one-to-one, many-to-many, ordered) and deletes, then every bookkeeping invariant of the spec
/// checked with plain SQL (`StoreOracle.invariantViolations`), `PRAGMA integrity_check`,
/// `Z_METADATA` unchanged, and a second open of the file reading back exactly what was written.
@Suite struct CoreDataWriteTests {
    /// The checker itself holds on the stores as Core Data wrote them (all but the three the spec
    /// names as inconsistent), so a violation after a write is the write's.
    @Test func theInvariantsHoldOnTheCorpusStores() throws {
        guard let (stores, _) = CoreDataCorpusStores.all() else { return }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var violating: Set<String> = []
        for store in stores {
            let oracle = try StoreOracle(path: try store.copy(into: directory), model: store.model)
            if try !oracle.invariantViolations().isEmpty { violating.insert(store.name) }
        }
        #expect(violating == ["ArtsyPartner_1.3.sqlite", "ArtsyPartner_1.4.sqlite", "ArtsyPartner_2.0.sqlite"])
    }

    /// Bookmarks V5: ordered one-to-many (`children`, `Z_FOK_PARENT`) and an ordered self
    /// many-to-many (`favorites`, `Z_1FAVORITES` with `Z_FOK_1FAVORITES`), data only in the WAL.
    @Test func orderedListsAndJoinRowsInBookmarks() throws {
        guard let (path, directory) = try Self.copy("Bookmarks_V5.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try StoreOracle(path: path, model: CDBookmarks5.BookmarksModelModel.model)
        let metadata = try before.metadata()
        let maxKey = try #require(try before.integer("SELECT max(Z_PK) FROM ZBOOKMARKENTITY"))
        let store = try PersistentStore(coreDataStoreAt: path, model: CDBookmarks5.BookmarksModelModel.model)
        let context = store.newContext()
        let all = try context.fetchAll(BookmarkEntity.self)
        let folder = try #require(all.first { $0.isFolder && !$0.children.isEmpty })
        let favoritesFolder = try #require(all.first { !$0.favorites.isEmpty })
        // A bookmark that is also a favourite, if there is one: its join rows go with it.
        let leaf = try #require(
            folder.children.last { !$0.isFolder && !$0.favoriteFolders.isEmpty }
                ?? folder.children.last { !$0.isFolder })
        let renamed = try #require(folder.children.first { $0 !== leaf })
        let renamedKey = renamed.objectID.rowID
        let renamedVersion = try #require(
            try before.integer("SELECT Z_OPT FROM ZBOOKMARKENTITY WHERE Z_PK = ?", [renamedKey]))
        let added = BookmarkEntity(in: context, isFolder: false, uuid: "added-bookmark")
        added.title = "Added"
        added.url = "https://example.org/added"
        let subfolder = BookmarkEntity(in: context, isFolder: true, uuid: "added-folder")
        folder.children = [subfolder] + folder.children + [added]
        favoritesFolder.favorites = [added] + favoritesFolder.favorites.reversed()
        renamed.title = "Renamed"
        context.delete(leaf)
        let deletedKey = leaf.objectID.rowID
        try context.save()
        let children = folder.children.map(\.uuid)
        let favorites = favoritesFolder.favorites.map(\.uuid)

        let after = try StoreOracle(path: path, model: CDBookmarks5.BookmarksModelModel.model)
        let violations = try after.invariantViolations()
        #expect(violations == [], "\(violations)")
        #expect(try after.integrity() == "ok")
        #expect(try after.metadata() == metadata)
        // Two inserts: keys above the old largest, Z_MAX moved with them.
        #expect(added.objectID.rowID > maxKey && subfolder.objectID.rowID > maxKey)
        #expect(try after.integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1") == maxKey + 2)
        #expect(try after.integer("SELECT max(Z_PK) FROM ZBOOKMARKENTITY") == maxKey + 2)
        for key in [added.objectID.rowID, subfolder.objectID.rowID] {
            #expect(try after.integer("SELECT Z_OPT FROM ZBOOKMARKENTITY WHERE Z_PK = ?", [key]) == 1)
            #expect(try after.integer("SELECT Z_ENT FROM ZBOOKMARKENTITY WHERE Z_PK = ?", [key]) == 1)
        }
        #expect(
            try after.integer("SELECT Z_OPT FROM ZBOOKMARKENTITY WHERE Z_PK = ?", [renamedKey]) == renamedVersion + 1)
        #expect(try after.integer("SELECT count(*) FROM ZBOOKMARKENTITY WHERE Z_PK = ?", [deletedKey]) == 0)
        #expect(
            try after.integer(
                "SELECT count(*) FROM Z_1FAVORITES WHERE Z_1FAVORITES = ? OR Z_1FAVORITEFOLDERS = ?",
                [deletedKey, deletedKey]) == 0)
        // Positions in Core Data's scheme, in the list's order.
        let positions = try after.rows(
            "SELECT Z_FOK_PARENT FROM ZBOOKMARKENTITY WHERE ZPARENT = ? ORDER BY Z_FOK_PARENT", [folder.objectID.rowID])
        #expect(positions == (0..<Int64(children.count)).map { [.integer(2048 + 1024 * $0)] })
        let order = try after.rows(
            "SELECT b.ZUUID FROM Z_1FAVORITES AS j JOIN ZBOOKMARKENTITY AS b ON b.Z_PK = j.Z_1FAVORITES WHERE j.Z_1FAVORITEFOLDERS = ? ORDER BY j.Z_FOK_1FAVORITES",
            [favoritesFolder.objectID.rowID])
        #expect(order == favorites.map { [.text($0)] })

        // Read back by a new store on the file.
        let reopened = try PersistentStore(coreDataStoreAt: path, model: CDBookmarks5.BookmarksModelModel.model)
        let again = reopened.newContext()
        let byUUID = Dictionary(uniqueKeysWithValues: try again.fetchAll(BookmarkEntity.self).map { ($0.uuid, $0) })
        #expect(byUUID[folder.uuid]?.children.map(\.uuid) == children)
        #expect(byUUID[favoritesFolder.uuid]?.favorites.map(\.uuid) == favorites)
        #expect(byUUID["added-bookmark"]?.title == "Added")
        #expect(byUUID["added-bookmark"]?.parent?.uuid == folder.uuid)
        #expect(byUUID[renamed.uuid]?.title == "Renamed")
        #expect(byUUID[leaf.uuid] == nil)
        #expect(byUUID.count == all.count + 1)
    }

    /// XCServer 2.0.1: one-to-ones relinked from either side and on one entity, a many-to-many
    /// link added and removed, and a delete that cascades through several tables.
    @Test func oneToOnesManyToManyAndCascadesInXCServer() throws {
        guard let (path, directory) = try Self.copy("XCServerCoreData_2.0.1.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = CDXCServer201.XCServerCoreDataModel.model
        let metadata = try StoreOracle(path: path, model: model).metadata()
        let store = try PersistentStore(coreDataStoreAt: path, model: model)
        let context = store.newContext()
        let integrations = try context.fetchAll(Integration.self).filter { $0.assets != nil }
        #expect(integrations.count >= 4)
        let (first, second, third) = (integrations[0], integrations[1], integrations[2])
        let firstAssets = try #require(first.assets)
        let secondAssets = try #require(second.assets)
        let thirdAssets = try #require(third.assets)
        first.assets = secondAssets  // from the side that keeps the runtime's key
        thirdAssets.integration = nil  // from the other side
        let devices = try context.fetchAll(Device.self).filter {
            $0.activeProxiedDevice == nil && $0.inverseActiveProxiedDevice == nil
        }
        let (proxy, proxied) = (devices[0], devices[1])
        proxy.activeProxiedDevice = proxied
        let configuration = try #require(try context.fetchAll(Configuration.self).first { !$0.repositories.isEmpty })
        let dropped = try #require(configuration.repositories.first)
        let repository = context.insert(Repository.self)
        repository.identifier = "added-repository"
        configuration.repositories = configuration.repositories.subtracting([dropped]).union([repository])
        let doomed = integrations[3]
        let doomedKey = doomed.objectID.rowID
        let doomedAssets = try #require(doomed.assets).objectID.rowID
        context.delete(doomed)
        try context.save()

        let after = try StoreOracle(path: path, model: model)
        let violations = try after.invariantViolations()
        #expect(violations == [], "\(violations)")
        #expect(try after.integrity() == "ok")
        #expect(try after.metadata() == metadata)
        func key(_ table: String, _ column: String, _ row: ManagedObject) throws -> Int64? {
            try after.integer("SELECT \(column) FROM \(table) WHERE Z_PK = ?", [row.objectID.rowID])
        }
        #expect(try key("ZINTEGRATION", "ZASSETS", first) == secondAssets.objectID.rowID)
        #expect(try key("ZINTEGRATIONASSETS", "ZINTEGRATION", secondAssets) == first.objectID.rowID)
        #expect(try key("ZINTEGRATION", "ZASSETS", second) == nil)
        #expect(try key("ZINTEGRATIONASSETS", "ZINTEGRATION", firstAssets) == nil)
        #expect(try key("ZINTEGRATION", "ZASSETS", third) == nil)
        #expect(try key("ZINTEGRATIONASSETS", "ZINTEGRATION", thirdAssets) == nil)
        #expect(try key("ZDEVICE", "ZACTIVEPROXIEDDEVICE", proxy) == proxied.objectID.rowID)
        #expect(try key("ZDEVICE", "ZINVERSEACTIVEPROXIEDDEVICE", proxied) == proxy.objectID.rowID)
        #expect(try after.integer("SELECT count(*) FROM ZINTEGRATION WHERE Z_PK = ?", [doomedKey]) == 0)
        // Cascade: the deleted integration's assets went with it.
        #expect(try after.integer("SELECT count(*) FROM ZINTEGRATIONASSETS WHERE Z_PK = ?", [doomedAssets]) == 0)
        #expect(try after.integer("SELECT Z_OPT FROM ZREPOSITORY WHERE Z_PK = ?", [repository.objectID.rowID]) == 1)
        #expect(
            try after.integer(
                "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = (SELECT Z_ENT FROM ZREPOSITORY WHERE Z_PK = ?)",
                [repository.objectID.rowID])
                == repository.objectID.rowID)

        let again = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
            .newContext()
        let read = Dictionary(
            uniqueKeysWithValues: try again.fetchAll(Integration.self).map { ($0.objectID.rowID, $0) })
        #expect(read[first.objectID.rowID]?.assets?.objectID.rowID == secondAssets.objectID.rowID)
        #expect(read[second.objectID.rowID]?.assets == nil)
        #expect(read[third.objectID.rowID]?.assets == nil)
        #expect(read[doomedKey] == nil)
        let readConfiguration = try #require(
            try again.fetchAll(Configuration.self).first { $0.objectID.rowID == configuration.objectID.rowID })
        #expect(
            Set(readConfiguration.repositories.map(\.identifier)) == Set(configuration.repositories.map(\.identifier)))
        #expect(readConfiguration.repositories.contains { $0.identifier == "added-repository" })
        #expect(!readConfiguration.repositories.contains { $0.identifier == dropped.identifier })
    }

    /// artsy's last store: objects of sub-entities (`LocalImage`, `InstallShotImage` in `ZIMAGE`)
    /// as destinations of to-ones whose `Z7_` column must hold their `Z_ENT`.
    @Test func subEntitiesAndEntityColumnsInArtsy() throws {
        guard let (path, directory) = try Self.copy("oss_stubbed_data.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = CDArtsyFolio23.ArtsyPartnerModel.model
        let store = try PersistentStore(coreDataStoreAt: path, model: model)
        let context = store.newContext()
        let artworks = try context.fetchAll(Artwork.self)
        let image = context.insert(LocalImage.self)
        image.slug = "local-image"
        artworks[0].mainImage = image
        let shot = context.insert(InstallShotImage.self)
        shot.slug = "install-shot"
        let album = try #require(try context.fetchAll(Album.self).first)
        album.cover = shot
        try context.save()
        let after = try StoreOracle(path: path, model: model)
        let violations = try after.invariantViolations()
        #expect(violations == [], "\(violations)")
        #expect(try after.integrity() == "ok")
        let localNumber = try #require(after.numbers[image.objectID.entityID])
        let shotNumber = try #require(after.numbers[shot.objectID.entityID])
        #expect(
            try after.integer("SELECT Z_ENT FROM ZIMAGE WHERE Z_PK = ?", [image.objectID.rowID]) == Int64(localNumber))
        #expect(
            try after.integer("SELECT Z7_MAINIMAGE FROM ZARTWORK WHERE Z_PK = ?", [artworks[0].objectID.rowID])
                == Int64(localNumber))
        #expect(
            try after.integer("SELECT Z7_COVER FROM ZALBUM WHERE Z_PK = ?", [album.objectID.rowID]) == Int64(shotNumber)
        )
        let again = try PersistentStore(coreDataStoreAt: path, model: model).newContext()
        let reread = try #require(
            try again.fetchAll(Artwork.self).first { $0.objectID.rowID == artworks[0].objectID.rowID })
        #expect(reread.mainImage is LocalImage)
        #expect(reread.mainImage?.slug == "local-image")
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cdwrite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A copy of the corpus store `name` in a new directory; nil when `../shared` is missing.
    static func copy(_ name: String) throws -> (String, URL)? {
        guard let (stores, _) = CoreDataCorpusStores.all() else { return nil }
        let store = try #require(stores.first { $0.name == name })
        let directory = try temporaryDirectory()
        return (try store.copy(into: directory), directory)
    }
}
