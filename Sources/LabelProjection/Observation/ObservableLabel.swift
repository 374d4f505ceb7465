import EventLog
import Observation

/// One label as an observable row: SwiftUI (or `withObservationTracking`)
/// tracks each property separately, so a view that read only `title` is not
/// invalidated when `isEnabled` changes, and no row is invalidated by another
/// row's change. Properties change only when their value changes.
///
/// There is one object per label and list model: ``ObservableLabels/rows``
/// and the ``ObservableView/rows`` of every view made from that model hold
/// the same objects, so a row observed on two screens is one row, updated
/// once. A label removed and later restored gets a new object.
///
/// A row edits its label through the store, addressed by its ``id`` (see
/// ``rename(to:options:ifUnchanged:)`` and the other edits), never by a
/// position on a screen.
///
/// Main-actor isolated: read, observe and edit it on the main actor.
@MainActor
@Observable
public final class ObservableLabel: Identifiable {
    /// The stable identity.
    public let id: LabelID
    /// The title, exact to the byte: a rename to a canonically equivalent
    /// title (other bytes, equal by Swift's `String ==`) is told to its
    /// readers like any other rename. (`@Observable`'s generated setter skips
    /// a value that is `==` to the old one, so the title is stored outside
    /// the macro and notifies by hand.)
    public internal(set) var title: String {
        get {
            access(keyPath: \.title)
            return titleBytes
        }
        set {
            withMutation(keyPath: \.title) { titleBytes = newValue }
        }
    }
    /// The storage of ``title``, set only through it.
    @ObservationIgnored private var titleBytes: String
    /// Whether the label is enabled.
    public internal(set) var isEnabled: Bool
    /// The label's version (see ``Label/version``): the seq of the record that
    /// last added it or changed its title or `isEnabled`.
    public internal(set) var version: UInt64
    /// The list model that holds the row (weakly): an edit through the row
    /// brings it up to date before returning.
    @ObservationIgnored weak var model: ObservableLabels?
    /// The store the row's edits go to.
    @ObservationIgnored let store: LabelStore

    init(_ label: Label, store: LabelStore, model: ObservableLabels?) {
        id = label.id
        titleBytes = label.title
        isEnabled = label.isEnabled
        version = label.version
        self.store = store
        self.model = model
    }

    /// The row as a ``Label`` value.
    public var label: Label { Label(id: id, title: title, isEnabled: isEnabled, version: version) }

    /// Sets each property that differs from `label` (and only those; a title
    /// differs when its bytes do, see ``Swift/String/sameBytes(_:_:)``).
    func update(from label: Label) {
        if !String.sameBytes(title, label.title) { title = label.title }
        if isEnabled != label.isEnabled { isEnabled = label.isEnabled }
        if version != label.version { version = label.version }
    }
}
