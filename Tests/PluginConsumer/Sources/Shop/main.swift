import ModelGenRuntime

// Stores two products in memory and lists them: the generated `Product` class and `ShopModel`
// come from the plugin at build time.
let store = try PersistentStore(path: ":memory:", model: ShopModel.model)
let context = store.newContext()
for (name, stock) in [("Tea", 3), ("Cocoa", 5)] {
    let product = Product(in: context, name: name)
    product.stock = Int32(stock)
}
try context.save()
for product in try Product.fetch(in: context, sortedBy: [ObjectSortDescriptor(\Product.name)]) {
    print("\(product.name): \(product.stock)")
}
