package sim

import "fmt"

// DamageHistory makes JobHistory unable to load an app's job, as a
// damaged .jhist file does on a real cluster (recorded on 3.3.6,
// jhs-unloadable/): the jobs list still shows it, while the job, its
// tasks and its conf answer 500. RestoreHistory undoes it (the file put
// back). Nothing else about the app changes.
func (c *Cluster) DamageHistory(appID string) error { return c.setHistoryDamaged(appID, true) }

// RestoreHistory makes a damaged job's history loadable again.
func (c *Cluster) RestoreHistory(appID string) error { return c.setHistoryDamaged(appID, false) }

func (c *Cluster) setHistoryDamaged(appID string, v bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.appByID[appID]
	if !ok {
		return fmt.Errorf("damage history: no app %s", appID)
	}
	a.historyDamaged = v
	if a.history != nil {
		h := *a.history
		h.HistoryUnloadable = v
		a.history = &h
	}
	return nil
}
