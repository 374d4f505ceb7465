/// The frames of one append call, encoded back to back into one buffer
/// that is written with one `pwrite`, and the records they hold.
///
/// One pass over the entries: each becomes its ``EventRecord`` (the one copy
/// of its strings that the caller gets back), is validated (an invalid entry
/// rejects the whole call before anything is written), and is encoded from
/// that record straight into the buffer through raw pointers, its frame
/// checksummed once over contiguous bytes. The bytes are those of
/// ``Frame/encode(_:into:format:previous:continues:)``.
struct FrameBatch: ~Copyable {
    /// The records the entries became, in order.
    let records: [EventRecord]
    /// Where the last frame starts in ``bytes``.
    let lastFrameOffset: Int
    /// The last frame's checksum (the `previous` of the next frame).
    let lastChecksum: UInt32
    /// The frames the sparse index keeps (every ``SparseIndex/stride``-th
    /// seq), with their offsets in ``bytes``. Usually empty or one.
    let indexed: [(seq: UInt64, offset: Int)]
    private let base: UnsafeMutableRawPointer
    private let count: Int

    /// Validates and encodes `entries` as the records `firstSeq`, `firstSeq + 1`, …;
    /// entries without a timestamp are stamped `now`. `entries` must not be empty.
    /// Throws ``EventLogError/Code/invalidEvent`` for the first invalid entry.
    ///
    /// In a chained `format`, the first frame records `previous` (the
    /// checksum of the log's last frame) and carries the continuation flag
    /// if `firstContinues` (an earlier record is not yet durable); every
    /// later frame of the batch carries it, since its predecessor is in the
    /// same unsynced write.
    init(
        _ entries: [LogEntry], firstSeq: UInt64, now: EventTimestamp, format: FrameFormat,
        previous: UInt32, firstContinues: Bool
    ) throws(EventLogError) {
        try self.init(count: entries.count, keepsRecords: true, format: format, previous: previous, firstContinues: firstContinues) {
            entries[$0].record(seq: firstSeq + UInt64($0), now: now)
        }
    }

    /// Validates and encodes `records`, already numbered (consecutive seqs) and
    /// stamped, as ``init(_:firstSeq:now:format:previous:firstContinues:)``
    /// does its entries; ``records`` stays empty (the caller has them).
    init(records: [EventRecord], format: FrameFormat, previous: UInt32, firstContinues: Bool) throws(EventLogError) {
        try self.init(count: records.count, keepsRecords: false, format: format, previous: previous, firstContinues: firstContinues) {
            records[$0]
        }
    }

    private init(
        count n: Int, keepsRecords: Bool, format: FrameFormat, previous: UInt32, firstContinues: Bool,
        record makeRecord: (Int) -> EventRecord
    ) throws(EventLogError) {
        precondition(n > 0, "a frame batch needs at least one entry")
        var capacity = n * 96
        var base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        var count = 0
        var records: [EventRecord] = []
        if keepsRecords { records.reserveCapacity(n) }
        var lastFrameOffset = 0
        var checksum = previous
        var indexed: [(seq: UInt64, offset: Int)] = []
        /// Room for `length` more bytes at `count`.
        func reserve(_ length: Int) {
            guard count + length > capacity else { return }
            capacity = max(capacity * 2, count + length)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            grown.copyMemory(from: base, byteCount: count)
            base.deallocate()
            base = grown
        }
        // Format version 4: the records of a run go into batch frames (``batchFrameRecords`` at most each).
        var run: [EventRecord] = []
        var runPayloadBytes = 0
        /// Writes the records in `run` as one frame: a batch frame, or the one record's version 2 frame.
        func flushRun() throws(EventLogError) {
            guard !run.isEmpty else { return }
            defer {
                run.removeAll(keepingCapacity: true)
                runPayloadBytes = 0
            }
            if run.count == 1 {
                writeFrame(of: run[0], payloadLength: run[0].payloadLength)
                return
            }
            var body = ByteWriter(capacity: 64 + 40 * run.count)
            try BatchFrameEncoder.encode(run, into: &body)
            reserve(format.headerLength + body.bytes.count)
            let frame = base + count
            body.bytes.withUnsafeBytes { (frame + format.headerLength).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            checksum = Frame.seal(
                frame, payloadLength: body.bytes.count, format: format, previous: checksum, continues: count > 0 || firstContinues,
                batch: true)
            for record in run where (record.seq - 1) % SparseIndex.stride == 0 { indexed.append((record.seq, count)) }
            lastFrameOffset = count
            count += format.headerLength + body.bytes.count
        }
        /// Writes `record`'s version 2 frame.
        func writeFrame(of record: EventRecord, payloadLength: Int) {
            let frameLength = format.headerLength + payloadLength
            reserve(frameLength)
            let frame = base + count
            var w = UnsafeByteWriter(frame + format.headerLength, end: frame + frameLength)
            record.writePayload(to: &w)
            precondition(w.position == frame + frameLength, "the encoder wrote a different length than it computed")
            checksum = Frame.seal(
                frame, payloadLength: payloadLength, format: format, previous: checksum, continues: count > 0 || firstContinues)
            lastFrameOffset = count
            if (record.seq - 1) % SparseIndex.stride == 0 { indexed.append((record.seq, count)) }
            count += frameLength
        }
        let batches = format.hasBatchFrames && n > 1
        for i in 0..<n {
            let record = makeRecord(i)
            let payloadLength: Int
            do throws(EventLogError) { payloadLength = try record.validatedPayloadLength() } catch {
                base.deallocate()
                throw error
            }
            if batches {
                if !run.isEmpty && (run.count == Self.batchFrameRecords || runPayloadBytes + payloadLength > Self.batchFramePayloadBytes) {
                    do throws(EventLogError) { try flushRun() } catch {
                        base.deallocate()
                        throw error
                    }
                }
                run.append(record)
                runPayloadBytes += payloadLength
            } else {
                writeFrame(of: record, payloadLength: payloadLength)
            }
            if keepsRecords { records.append(record) }
        }
        do throws(EventLogError) { try flushRun() } catch {
            base.deallocate()
            throw error
        }
        self.records = records
        self.lastFrameOffset = lastFrameOffset
        self.lastChecksum = checksum
        self.indexed = indexed
        self.base = base
        self.count = count
    }

    /// The most records a batch frame of an append holds (format version 4):
    /// reading one record of a frame decodes the frame, so frames stay small
    /// enough for a lookup, and large enough to code most records against
    /// others (docs/FORMAT-PLAN.md, H: 28 bytes per event at 1,000).
    static let batchFrameRecords = 1_024
    /// The most bytes of canonical payloads a batch frame of an append holds
    /// (a record longer than that gets a frame of its own).
    static let batchFramePayloadBytes = 4 << 20

    deinit { base.deallocate() }

    /// The encoded frames; valid while the batch exists.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
