import ModelGenRuntime

// Counts what is in a bin: the generated `Bin`, `Item` and `InventoryModel` are committed in
// Generated/ (written by `swift package generate-model-code`), not generated at build time.
let store = try PersistentStore(path: ":memory:", model: InventoryModel.model)
let context = store.newContext()
let bin = Bin(in: context, label: "A1")
for (name, quantity) in [("bolt", 40), ("nut", 25)] {
    let item = Item(in: context, name: name)
    item.quantity = Int32(quantity)
    item.bin = bin
}
try context.save()
let total = bin.items.reduce(0) { $0 + Int($1.quantity) }
print("\(bin.label): \(bin.items.count) items, \(total) pieces")
