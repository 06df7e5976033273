package browsertest

import "testing"

func TestChartsAndScriptErrorsFromDOM(t *testing.T) {
	dom := `<html lang="en" data-errors="Uncaught ReferenceError: x is not defined; "><body>
<canvas id="a" data-points="12" data-min="0.5" data-max="99" style="x"></canvas>
<canvas data-points="3" id="b"></canvas><canvas class="c"></canvas></body></html>`
	got := Charts(dom)
	if a := got["a"]; a.Points != 12 || a.Min != 0.5 || a.Max != 99 {
		t.Errorf("chart a = %+v", a)
	}
	if b := got["b"]; b.Points != 3 || len(got) != 2 {
		t.Errorf("charts = %+v, want a and b only", got)
	}
	if e := ScriptErrors(dom); e != "Uncaught ReferenceError: x is not defined; " {
		t.Errorf("script errors = %q", e)
	}
	if e := ScriptErrors(`<html lang="en"><body></body></html>`); e != "" {
		t.Errorf("script errors of a clean page = %q", e)
	}
}
