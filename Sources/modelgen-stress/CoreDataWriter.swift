import CDBookmarks5
import Foundation
import ModelGenRuntime

/// Saves in a loop until killed, into a store Core Data wrote (a copy of the corpus's
/// Bookmarks V5 store). Save `n` sets the counter folder's title to `n` (making the folder in
/// save 1), appends bookmark `save-n` to its ordered `children` and ordered `favorites`, and
/// deletes bookmark `save-(n-3)`: an insert, an update, a delete, positions and join rows in
/// every transaction.
struct CoreDataWriter {
    static let counter = "crash-counter"
    var path: String

    func run() throws {
        let store = try PersistentStore(coreDataStoreAt: path, model: BookmarksModelModel.model)
        while true {
            let context = store.newContext()
            let counter =
                try context.fetch(FetchRequest<BookmarkEntity>(predicate: \BookmarkEntity.uuid == Self.counter)).first
                ?? BookmarkEntity(in: context, isFolder: true, uuid: Self.counter)
            let number = (counter.title.flatMap { Int($0) } ?? 0) + 1
            let bookmark = BookmarkEntity(in: context, isFolder: false, uuid: "save-\(number)")
            bookmark.title = "save \(number)"
            counter.addToChildren(bookmark)
            counter.addToFavorites(bookmark)
            if number > 3,
                let old = try context.fetch(
                    FetchRequest<BookmarkEntity>(predicate: \BookmarkEntity.uuid == "save-\(number - 3)")
                ).first
            {
                context.delete(old)
            }
            counter.title = "\(number)"
            emit("begin \(number)")
            try context.save()
            emit("done \(number)")
        }
    }
}
