package llm_test

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/eligo/eligo/authoring/llm"
)

// A provider key prints, logs and encodes as "[redacted]"; only Reveal
// gives the secret, for the one place it is sent.
func ExampleKey() {
	k := llm.NewKey("sk-proj-example-secret")
	fmt.Printf("%v %+v %q\n", k, struct{ Key llm.Key }{k}, k)
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	logger.Info("generate", "provider_key", k)
	fmt.Println(len(k.Reveal()))
	// Output:
	// [redacted] {Key:[redacted]} "[redacted]"
	// level=INFO msg=generate provider_key=[redacted]
	// 22
}

// A deployment configures its models in one string; the first is the
// default, and each model's budget is what a prompt may use.
func ExampleParseModels() {
	models, err := llm.ParseModels("gpt-4.1:1047576,llama3.1:8b:131072:cl100k_base,phi3:mini:4096")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range models.Names() {
		m, _ := models.Lookup(name)
		fmt.Printf("%s window %d budget %d (%s)\n", m.Name, m.ContextWindow, m.Budget(), m.Encoding)
	}
	fmt.Println("default:", models.Default().Name)
	_, err = llm.ParseModels("gpt-4o:128k")
	fmt.Println(err)
	// Output:
	// gpt-4.1 window 1047576 budget 1031576 (o200k_base)
	// llama3.1:8b window 131072 budget 115072 (cl100k_base)
	// phi3:mini window 4096 budget 3072 (o200k_base)
	// default: gpt-4.1
	// invalid model table: entry 1 "gpt-4o:128k": want name:context_window[:encoding] with the window a whole number of tokens
}
