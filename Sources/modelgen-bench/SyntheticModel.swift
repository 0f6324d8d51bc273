/// Writes the XML of a synthetic model as Xcode would: `entities` entities of `attributes`
/// attributes each (cycling through the attribute types) and three relationships each, every one
/// with an inverse: `parent` (to-one) ↔ `children` (to-many) along a chain, and `partner` (to-one,
/// its own inverse's pair) between neighbours.
enum SyntheticModel {
    static func xml(entities: Int, attributes: Int) -> [UInt8] {
        let types = [
            "String", "Integer 64", "Boolean", "Date", "Double", "Integer 32", "Binary", "Decimal", "UUID", "Float",
        ]
        var text = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">

            """
        text.reserveCapacity(entities * (attributes * 130 + 800))
        func name(_ index: Int) -> String {
            let digits = String(index)
            return "Entity" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
        }
        for index in 0..<entities {
            let entity = name(index)
            let next = name((index + 1) % entities)
            let previous = name((index + entities - 1) % entities)
            let partner = name(index ^ 1 < entities ? index ^ 1 : index)
            text +=
                "    <entity name=\"\(entity)\" representedClassName=\"\(entity)\" syncable=\"YES\" codeGenerationType=\"class\">\n"
            for attribute in 0..<attributes {
                let type = types[attribute % types.count]
                let optional = attribute % 3 == 0 ? "" : " optional=\"YES\""
                let scalar =
                    ["Integer 64", "Integer 32", "Boolean", "Double", "Float"].contains(type)
                    ? " usesScalarValueType=\"YES\"" : ""
                let defaultValue = type == "Integer 64" ? " defaultValueString=\"0\"" : ""
                text +=
                    "        <attribute name=\"attribute\(attribute)\"\(optional) attributeType=\"\(type)\"\(defaultValue)\(scalar)/>\n"
            }
            text +=
                "        <relationship name=\"children\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Cascade\" destinationEntity=\"\(next)\" inverseName=\"parent\" inverseEntity=\"\(next)\"/>\n"
            text +=
                "        <relationship name=\"parent\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"\(previous)\" inverseName=\"children\" inverseEntity=\"\(previous)\"/>\n"
            text +=
                "        <relationship name=\"partner\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"\(partner)\" inverseName=\"partner\" inverseEntity=\"\(partner)\"/>\n"
            text += "    </entity>\n"
        }
        text += "</model>"
        return Array(text.utf8)
    }
}
