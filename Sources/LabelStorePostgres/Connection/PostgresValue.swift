#if Postgres
import EventLog
import Foundation

/// A statement parameter in PostgreSQL's binary wire format, with its type's OID.
///
/// Every parameter is sent in binary (format 1): integers big-endian, text and
/// `bytea` as their bytes, a `uuid` as its 16 bytes, and one-dimensional arrays
/// in the array binary format (dimensions, element OID, then each element's
/// length and bytes; a length of -1 is SQL NULL).
struct PostgresValue: Equatable {
    /// The type's OID (`pg_type.oid`).
    let type: UInt32
    /// The bytes, or `nil` for SQL NULL.
    let bytes: [UInt8]?

    /// The OIDs this backend sends and reads (stable across PostgreSQL versions).
    enum OID {
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let text: UInt32 = 25
        static let uuid: UInt32 = 2950
        static let int2Array: UInt32 = 1005
        static let textArray: UInt32 = 1009
        static let byteaArray: UInt32 = 1001
        static let int8Array: UInt32 = 1016
        static let uuidArray: UInt32 = 2951
    }

    static func int8(_ value: Int64) -> PostgresValue { PostgresValue(type: OID.int8, bytes: bigEndian(value)) }
    /// The value of an ``int8(_:)`` parameter; `nil` for another type or NULL.
    var int8Value: Int64? {
        guard type == OID.int8, let bytes, bytes.count == 8 else { return nil }
        return bytes.reduce(0) { ($0 << 8) | Int64($1) }
    }
    static func int4(_ value: Int32) -> PostgresValue { PostgresValue(type: OID.int4, bytes: bigEndian(value)) }
    static func int2(_ value: Int16) -> PostgresValue { PostgresValue(type: OID.int2, bytes: bigEndian(value)) }
    static func text(_ value: String) -> PostgresValue { PostgresValue(type: OID.text, bytes: Array(value.utf8)) }
    static func uuid(_ value: UUID) -> PostgresValue { PostgresValue(type: OID.uuid, bytes: uuidBytes(value)) }
    static func bool(_ value: Bool) -> PostgresValue { PostgresValue(type: OID.bool, bytes: [value ? 1 : 0]) }
    static func bytes(_ value: [UInt8]) -> PostgresValue { PostgresValue(type: OID.bytea, bytes: value) }

    /// A one-dimensional array of `elementType` whose elements are `elements` (each `nil` for NULL).
    static func array(of elementType: UInt32, arrayType: UInt32, _ elements: [[UInt8]?]) -> PostgresValue {
        var out: [UInt8] = []
        out.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        let hasNull = elements.contains { $0 == nil }
        out += bigEndian(Int32(elements.isEmpty ? 0 : 1))  // dimensions
        out += bigEndian(Int32(hasNull ? 1 : 0))
        out += bigEndian(elementType)
        if !elements.isEmpty {
            out += bigEndian(Int32(elements.count))  // length of the dimension
            out += bigEndian(Int32(1))  // lower bound
        }
        for element in elements {
            if let element {
                out += bigEndian(Int32(element.count))
                out += element
            } else {
                out += bigEndian(Int32(-1))
            }
        }
        return PostgresValue(type: arrayType, bytes: out)
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    static func uuidBytes(_ value: UUID) -> [UInt8] {
        withUnsafeBytes(of: value.uuid) { Array($0) }
    }
}
#endif
