package rmweb

// Jersey 1's JSON (both 3.3 and 3.4 serve REST through it) renders some
// lists with one element as that element, not as an array: recorded for the
// containers list, get-node-to-labels' entry and get-node-labels'
// nodeLabelInfo. Others (apps.app, appAttempts.appAttempt, MR jobs, tasks,
// attempts, counters, nodeLabels) stay arrays; see the recordings'
// README.md. jerseyList is used exactly where the recordings show objects.

// jerseyList is a list as Jersey writes it: nil for none (the caller drops
// the key), the element for one, the list for several.
func jerseyList[T any](items []T) any {
	switch len(items) {
	case 0:
		return nil
	case 1:
		return items[0]
	}
	return items
}
