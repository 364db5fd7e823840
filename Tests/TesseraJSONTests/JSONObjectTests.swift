import TesseraJSON
import Testing

@Test func objectKeepsOrderAndUniqueKeys() {
    var object: JSONObject = ["b": 1, "a": 2]
    object["c"] = 3
    object["b"] = 4
    #expect(object.keys == ["b", "a", "c"])
    #expect(object["b"] == 4)
    let inserted = object.insertNew(key: "a", value: 9)
    #expect(!inserted)
    #expect(object["a"] == 2)
    object["a"] = nil
    #expect(object.keys == ["b", "c"])
    let removed = object.removeValue(forKey: "b")
    let absent = object.removeValue(forKey: "zz")
    #expect(removed == 4)
    #expect(absent == nil)
    #expect(object.keys == ["c"])
}

@Test func largeObjectsStayConsistent() {
    var object = JSONObject()
    for number in 0..<100 {
        object["k\(number)"] = .integer(Int64(number))
    }
    #expect(object.count == 100)
    #expect(object["k77"] == 77)
    object["k10"] = nil
    #expect(object["k10"] == nil)
    #expect(object["k11"] == 11)
    #expect(object.keys.first == "k0")
    #expect(object.keys.last == "k99")
    #expect(object.contains(key: "k99"))
}

@Test func equalityIgnoresMemberOrderButNotNumberKind() {
    let first: JSONValue = ["a": 1, "b": [1, 2]]
    let second: JSONValue = ["b": [1, 2], "a": 1]
    #expect(first == second)
    #expect(first.hashValue == second.hashValue)
    #expect(first != ["a": 1, "b": [2, 1]])
    #expect(first != ["a": 1.0, "b": [1, 2]])
    #expect(first != ["a": 1])
    #expect(Set([first, second]).count == 1)
}

@Test func accessorsAnswerOnlyForTheirKind() {
    let value: JSONValue = ["s": "x", "i": 5, "d": 2.5, "b": true, "n": nil, "a": [1], "o": ["k": 1]]
    #expect(value["s"]?.stringValue == "x")
    #expect(value["i"]?.intValue == 5)
    #expect(value["i"]?.doubleValue == 5)
    #expect(value["d"]?.intValue == nil)
    #expect(value["d"]?.doubleValue == 2.5)
    #expect(value["b"]?.boolValue == true)
    #expect(value["n"]?.isNull == true)
    #expect(value["a"]?[0] == 1)
    #expect(value["a"]?[1] == nil)
    #expect(value["o"]?["k"] == 1)
    #expect(value["missing"] == nil)
    #expect(value["s"]?["k"] == nil)
    #expect(value["s"]?.arrayValue == nil)
    #expect(value["o"]?.objectValue?.count == 1)
}
