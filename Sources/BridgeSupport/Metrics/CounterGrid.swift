import Metrics

/// One counter of `name` per pair of two labels' values, all made at start: every series shows at 0 before it first
/// moves (an alert's `increase()` sees the first one), and a count is one dictionary read, no label strings built per
/// call (docs/operations.md#scraping).
package struct CounterGrid<Row: CaseIterable & Hashable & RawRepresentable & Sendable, Column: CaseIterable & Hashable & RawRepresentable & Sendable>: Sendable
where Row.RawValue == String, Column.RawValue == String {
    private struct Cell: Hashable, Sendable {
        let row: Row
        let column: Column
    }

    private let counters: [Cell: Counter]

    /// `labels`: the two label names, in the order of `Row` and `Column`.
    package init(_ name: MetricName, labels: (row: String, column: String)) {
        var counters: [Cell: Counter] = [:]
        for row in Row.allCases {
            for column in Column.allCases {
                counters[Cell(row: row, column: column)] = Counter(
                    label: name.rawValue, dimensions: [(labels.row, row.rawValue), (labels.column, column.rawValue)]
                )
            }
        }
        self.counters = counters
    }

    package func increment(_ row: Row, _ column: Column) {
        counters[Cell(row: row, column: column)]?.increment()
    }
}
