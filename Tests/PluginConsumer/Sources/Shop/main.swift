import ModelGenRuntime
import Observation

// Stores two products in memory and lists them: the generated `Product` class and `ShopModel`
// come from the plugin at build time (made `Observable` by modelgen.json).
let store = try PersistentStore(path: ":memory:", model: ShopModel.model)
let context = store.newContext()
for (name, stock) in [("Tea", 3), ("Cocoa", 5)] {
    let product = Product(in: context, name: name)
    product.stock = Int32(stock)
}
try context.save()
let products = try Product.fetch(in: context, sortedBy: [ObjectSortDescriptor(\Product.name)])
for product in products {
    print("\(product.name): \(product.stock)")
}
let tea = products[1]
withObservationTracking {
    _ = tea.stock
} onChange: {
    print("observed: a change to Tea's stock")
}
tea.stock += 1
