package decide

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestStepContracts: every step of the decision has one contract and
// every contract one step; the contracts name real state fields; and
// every state field a step's Run touches — directly or through a function
// of this package it passes the state to — is among its reads or writes.
// (Writes are checked against whole decisions by
// testenv/experiment's TestStepContractsInWholeDecisions.)
func TestStepContracts(t *testing.T) {
	fields := map[string]bool{}
	st := reflect.TypeOf(decideState{})
	for i := 0; i < st.NumField(); i++ {
		fields[st.Field(i).Name] = true
	}
	steps := (&PSDecider{Preemption: &PreemptionGuard{}}).steps(nil)
	// The replay strategy's steps (step_replay.go) are the PS strategy's
	// inputs and outputs around its own plan step.
	replaySteps := (&PSDecider{Preemption: &PreemptionGuard{}, Strategy: StrategyReplay}).steps(nil)
	inPS := map[string]bool{}
	for _, s := range steps {
		inPS[s.Name()] = true
	}
	for _, s := range replaySteps {
		if !inPS[s.Name()] {
			steps = append(steps, s)
		}
	}
	names := map[string]string{} // step name → its type's name
	for _, s := range steps {
		if _, dup := names[s.Name()]; dup {
			t.Errorf("step %q listed twice", s.Name())
		}
		names[s.Name()] = reflect.TypeOf(s).Name()
		c, ok := stepContracts[s.Name()]
		if !ok {
			t.Errorf("step %q has no contract in step_contracts.go", s.Name())
			continue
		}
		if c.Purpose == "" || strings.Contains(c.Purpose, "\n") {
			t.Errorf("step %q: the purpose is one line", s.Name())
		}
		for _, f := range append(slices.Clone(c.Reads), c.Writes...) {
			if !fields[f] {
				t.Errorf("step %q declares %q, which decideState does not have", s.Name(), f)
			}
		}
	}
	for name := range stepContracts {
		if _, ok := names[name]; !ok {
			t.Errorf("contract %q names no step of the decision", name)
		}
	}

	touched := touchedFields(t, fields)
	for name, typ := range names {
		c := stepContracts[name]
		for f := range touched[typ] {
			if !slices.Contains(c.Reads, f) && !slices.Contains(c.Writes, f) {
				t.Errorf("step %q (%s) uses the state's %s, which its contract does not declare", name, typ, f)
			}
		}
	}
}

// touchedFields parses the package (no type checking) and returns, per
// step type, the state fields its Run method selects on its state
// parameter, following calls of this package's functions and methods the
// state is passed to.
func touchedFields(t *testing.T, fields map[string]bool) map[string]map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := map[string][]*ast.FuncDecl{} // name → declarations (functions and methods)
	runs := map[string]*ast.FuncDecl{}    // step type → its Run
	for _, fn := range files {
		if strings.HasSuffix(fn, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fn, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs[fd.Name.Name] = append(funcs[fd.Name.Name], fd)
			if fd.Recv != nil && fd.Name.Name == "Run" {
				typ := fd.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					runs[id.Name] = fd
				}
			}
		}
	}
	paramName := func(fd *ast.FuncDecl, i int) string {
		k := 0
		for _, p := range fd.Type.Params.List {
			for _, n := range p.Names {
				if k == i {
					return n.Name
				}
				k++
			}
			if len(p.Names) == 0 {
				k++
			}
		}
		return ""
	}
	out := map[string]map[string]bool{}
	for typ, run := range runs {
		got := map[string]bool{}
		seen := map[*ast.FuncDecl]bool{}
		var walk func(fd *ast.FuncDecl, state string)
		walk = func(fd *ast.FuncDecl, state string) {
			if seen[fd] || state == "" {
				return
			}
			seen[fd] = true
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == state && fields[x.Sel.Name] {
						got[x.Sel.Name] = true
					}
				case *ast.CallExpr:
					var callee string
					switch f := x.Fun.(type) {
					case *ast.Ident:
						callee = f.Name
					case *ast.SelectorExpr:
						callee = f.Sel.Name
					}
					for i, a := range x.Args {
						if id, ok := a.(*ast.Ident); ok && id.Name == state {
							for _, d := range funcs[callee] {
								walk(d, paramName(d, i))
							}
						}
					}
				}
				return true
			})
		}
		walk(run, paramName(run, 0))
		out[typ] = got
	}
	return out
}
