import Foundation
import ModelGenRuntime
import Testing

@testable import ModelGenCore

/// A save refused because a required to-one is empty says why it is empty: when deleting another
/// object cleared it (that object's relationship is Nullify), the message names the deletion, not
/// "never set".
@Suite struct DeletionMessageTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Color" representedClassName="Color" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="color" inverseEntity="Post"/>
            </entity>
            <entity name="Post" representedClassName="Post" codeGenerationType="class">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="color" maxCount="1" deletionRule="Nullify" destinationEntity="Color" inverseName="posts" inverseEntity="Color"/>
            </entity>
        </model>
        """

    @Test func aRequiredToOneClearedByADeletionSaysSo() throws {
        guard let shop = try RuntimeTrustTests.Shop(.sqlite, name: "Blog", xml: Self.xml) else { return }
        let context = shop.store.newContext()
        let red = try shop.insert(context, "Color", ["name": "red"])
        let post = try shop.insert(context, "Post", ["title": "hello", "color": red])
        try context.save()
        context.delete(red)
        #expect(try post.value(forKey: "color") == nil)
        do {
            try context.save()
            Issue.record("the save went through with Post.color empty")
        } catch let error as DatabaseError {
            #expect(error.code == .validation)
            #expect(error.message.hasPrefix("Post.color is required, but deleting Color "), "\(error.message)")
            #expect(error.message.hasSuffix("cleared it (Color.posts is Nullify)"), "\(error.message)")
        }
        context.rollback()
        // Never set: said so.
        _ = try shop.insert(context, "Post", ["title": "orphan"])
        do {
            try context.save()
            Issue.record("the save went through with Post.color never set")
        } catch let error as DatabaseError {
            #expect(error.message == "Post.color is required and was never set")
        }
    }
}
