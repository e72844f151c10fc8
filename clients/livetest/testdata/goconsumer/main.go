// A program written as a user of the Go client writes one, in a module of
// its own that requires only github.com/eligo/eligo/clients/go: it asks a
// live server about an applicant who has answered one question and prints
// the outcome and the next question's words. TestGoClientInACleanModule
// builds and runs it.
package main

import (
	"context"
	"fmt"
	"os"

	eligo "github.com/eligo/eligo/clients/go"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goconsumer BASE_URL")
		os.Exit(2)
	}
	c, err := eligo.NewClientWithResponses(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	slug := "demo/us-fmla-employee"
	r, err := c.DecideWithResponse(context.Background(), eligo.DecisionRequest{
		RulesetId:   &slug,
		FieldValues: map[string]any{"employment.employer_type": "private"},
	})
	if err != nil || r.JSON200 == nil {
		fmt.Fprintln(os.Stderr, "decide:", err, string(r.Body))
		os.Exit(1)
	}
	next := r.JSON200.NextQuestion
	if next == nil {
		fmt.Fprintln(os.Stderr, "no next question")
		os.Exit(1)
	}
	fmt.Println(r.JSON200.Decision)
	fmt.Println(next.FieldId)
	fmt.Println(next.Question)
}
