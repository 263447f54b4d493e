// helmrender renders a Helm chart's templates the way `helm template` does for the functions a
// chart without dependencies uses: Go's text/template with sprig's function map (Debian's
// golang-github-masterminds-sprig-dev, the library Helm itself uses), plus Helm's own toYaml,
// required and include. No helm binary is packaged for Debian 12, so the tests use this instead.
//
// Usage: helmrender CHART_DIR RELEASE NAMESPACE [VALUES_FILE...]
// Prints every rendered template (files starting with "_" are partials) as YAML documents.
package main

import (
	"bytes"
	"fmt"
	"io/ioutil"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

func readYAML(path string) map[string]interface{} {
	data, err := ioutil.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		fail("%s: %v", path, err)
	}
	return out
}

// merge copies override into base, descending into maps present in both, as helm's -f does.
func merge(base, override map[string]interface{}) map[string]interface{} {
	for key, value := range override {
		if child, ok := value.(map[string]interface{}); ok {
			if existing, ok := base[key].(map[string]interface{}); ok {
				base[key] = merge(existing, child)
				continue
			}
		}
		base[key] = value
	}
	return base
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "helmrender: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 4 {
		fail("usage: helmrender CHART_DIR RELEASE NAMESPACE [VALUES_FILE...]")
	}
	chartDir := os.Args[1]
	values := readYAML(filepath.Join(chartDir, "values.yaml"))
	for _, file := range os.Args[4:] {
		values = merge(values, readYAML(file))
	}
	chart := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	data := map[string]interface{}{
		"Values":  values,
		"Release": map[string]interface{}{"Name": os.Args[2], "Namespace": os.Args[3], "Service": "Helm"},
		"Chart":   map[string]interface{}{"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"]},
	}

	root := template.New("chart")
	funcs := sprig.TxtFuncMap()
	funcs["toYaml"] = func(value interface{}) string {
		var out bytes.Buffer
		encoder := yaml.NewEncoder(&out)
		encoder.SetIndent(2)
		if err := encoder.Encode(value); err != nil {
			return ""
		}
		return strings.TrimSuffix(out.String(), "\n")
	}
	funcs["required"] = func(message string, value interface{}) (interface{}, error) {
		if value == nil || value == "" {
			return nil, fmt.Errorf("%s", message)
		}
		return value, nil
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var out bytes.Buffer
		err := root.ExecuteTemplate(&out, name, data)
		return out.String(), err
	}
	root.Funcs(funcs).Option("missingkey=zero")

	files, err := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	if err != nil {
		fail("%v", err)
	}
	sort.Strings(files)
	for _, file := range files {
		text, err := ioutil.ReadFile(file)
		if err != nil {
			fail("%v", err)
		}
		if _, err := root.New(filepath.Base(file)).Parse(string(text)); err != nil {
			fail("%v", err)
		}
	}
	for _, file := range files {
		name := filepath.Base(file)
		if strings.HasPrefix(name, "_") || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
			continue
		}
		var out bytes.Buffer
		if err := root.ExecuteTemplate(&out, name, data); err != nil {
			fail("%v", err)
		}
		if strings.TrimSpace(out.String()) == "" {
			continue
		}
		fmt.Printf("---\n# Source: crigate/templates/%s\n%s\n", name, strings.TrimLeft(out.String(), "\n"))
	}
}
