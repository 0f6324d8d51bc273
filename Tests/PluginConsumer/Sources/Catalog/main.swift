import Foundation
import ModelGenRuntime

// Swift 6 language mode, top-level code that awaits: the catch forms users write around the
// runtime's calls (each compiles; an exhaustive `catch let … as DatabaseError` here crashed the
// Swift 6.3 compiler while the API threw typed errors), requests made once as global constants
// (they are Sendable), a uniqueness constraint over a to-one relationship with its `find`.

let bySKU = [ObjectSortDescriptor(\Part.sku)]
let lowStock = FetchRequest<Part>(predicate: \Part.stock < 5, sortDescriptors: bySKU)

let store = try PersistentStore(path: ":memory:", model: CatalogModel.model)
let context = store.newContext()
let bin = Bin(in: context, label: "A1")
for (sku, stock) in [("bolt", 3), ("nut", 9)] {
    let part = Part(in: context, sku: sku)
    part.stock = Int32(stock)
    part.bin = bin
}
try context.save()

// The same bin and SKU again: refused, and caught by each form.
@MainActor func duplicate() {
    let part = Part(in: context, sku: "bolt")
    part.bin = bin
}
duplicate()
do {
    try context.save()
} catch let error as DatabaseError {
    print("as DatabaseError: \(error.code) on \(error.property ?? "?")")
}
do {
    try context.save()
} catch let error as DatabaseError where error.code == .uniqueness {
    print("where .uniqueness: \(error.entity ?? "?")")
} catch {
    print("other: \(error)")
}
do {
    try context.save()
} catch is DatabaseError {
    print("is DatabaseError")
}
do {
    try context.save()
} catch {
    print("code: \((error as? DatabaseError)?.code.description ?? "none")")
}
context.rollback()

// objectTrump folds the duplicate into the stored part.
context.mergePolicy = .objectTrump
duplicate()
try context.save()
let found = try Part.find(bin: bin, sku: "bolt", in: context)
print("found \(found?.sku ?? "nothing") in \(found?.bin?.label ?? "no bin"); parts \(try Part.count(in: context))")

// A global request used from a task.
let names = try await store.perform { background in
    try background.fetch(lowStock).map(\.sku)
}
print("low stock: \(names.joined(separator: ", "))")
