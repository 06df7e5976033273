package sim

import "fmt"

// DamageHistory makes JobHistory unable to load an app's job, as a
// damaged .jhist file does on a real cluster (recorded on 3.3.6,
// jhs-unloadable/): the jobs list still shows it, while the job, its
// tasks and its conf answer 500. Nothing else about the app changes.
func (c *Cluster) DamageHistory(appID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.appByID[appID]
	if !ok {
		return fmt.Errorf("damage history: no app %s", appID)
	}
	a.historyDamaged = true
	if a.history != nil {
		v := *a.history
		v.HistoryUnloadable = true
		a.history = &v
	}
	return nil
}
