/// The two writes every fold makes, through which a rollback journal (see
/// ``withRollback(_:)``) learns what to undo: a slot's new value, and an
/// edit of the order.
extension LabelList {
    /// One edit of the order, as ``apply(_:)`` makes it.
    enum OrderEdit: Sendable {
        case inserted(UInt32, at: Int)
        case removed(UInt32, at: Int)
        case moved(from: Int, to: Int)
        case replaced(with: [UInt32])
    }

    /// Writes a slot, remembering its old value while a journal is open.
    mutating func setSlot(_ number: UInt32, _ slot: Slot) {
        if let threshold = journal?.slotThreshold, Int(number) < threshold {
            journal!.slots.append((number, slots[Int(number)]))
        }
        slots[Int(number)] = slot
    }

    /// Edits the order, remembering the inverse while a journal is open.
    mutating func editOrder(_ edit: OrderEdit) {
        switch edit {
        case .inserted(let slot, let at):
            order.insert(slot, at: at)
            journal?.undo.append(.removed(slot, at: at))
        case .removed(_, let at):
            let slot = order.remove(at: at)
            journal?.undo.append(.inserted(slot, at: at))
        case .moved(let from, let to):
            order.move(from: from, to: to)
            journal?.undo.append(.moved(from: to, to: from))
        case .replaced(let slots):
            if journal != nil { journal!.undo.append(.replaced(with: order.elements)) }
            order.replace(with: slots)
        }
    }
}
