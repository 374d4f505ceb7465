import EventLog

/// Decode only: touches every field of every record (so the decoding can't
/// be optimized away) and folds them into cheap checksums.
struct DecodeOnlyConsumer: ReplayConsumer {
    private var count = 0
    private var seqSum: UInt64 = 0
    private var timeSum: Int64 = 0
    private var textBytes = 0
    private var idBits: UInt64 = 0
    private var numbers = 0

    init() {}

    static var name: String { "decode" }

    mutating func consume(_ record: EventRecord) {
        count += 1
        seqSum &+= record.seq
        timeSum &+= record.timestamp.millisecondsSince1970
        textBytes &+= (record.actor?.utf8.count ?? 0) &+ (record.note?.utf8.count ?? 0)
        switch record.event {
        case .added(let id, let title, let isEnabled, let index), .removed(let id, let index, let title, let isEnabled):
            mix(id)
            textBytes &+= title.utf8.count
            numbers &+= index &+ (isEnabled ? 1 : 0)
        case .renamed(let id, let oldTitle, let newTitle):
            mix(id)
            textBytes &+= oldTitle.utf8.count &+ newTitle.utf8.count
        case .toggled(let id, let isEnabled):
            mix(id)
            numbers &+= isEnabled ? 1 : 0
        case .moved(let id, let from, let to):
            mix(id)
            numbers &+= from &* 3 &+ to
        case .reordered(let order):
            for id in order { mix(id) }
        case .rejected(let id, let command, let reason):
            if let id { mix(id) }
            textBytes &+= command.utf8.count &+ reason.utf8.count
        }
    }

    var digest: String { "\(count) records, seq sum \(seqSum), time sum \(timeSum), \(textBytes) text bytes, ids \(idBits), numbers \(numbers)" }

    private mutating func mix(_ id: LabelID) {
        let bytes = id.uuid.uuid
        idBits = (idBits &* 31) &+ UInt64(bytes.0) &+ UInt64(bytes.7) << 8 &+ UInt64(bytes.15) << 16
    }
}
