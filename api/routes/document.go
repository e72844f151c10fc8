package routes

import (
	"context"
	"errors"

	"github.com/eligo/eligo/api/openapi"
)

// Document builds the whole interface with the default configuration and
// no database, and returns its published OpenAPI document in version
// "3.1" or "3.0" (openapi.Documents). It is what `eligo openapi`
// prints and what api/openapi.json and api/openapi-3.0.json hold.
func Document(ctx context.Context, version string) ([]byte, error) {
	s, err := New(Config{}, nil)
	if err != nil {
		return nil, err
	}
	doc, err := openapi.New(s).Get(version)
	return doc, errors.Join(err, s.Close(ctx))
}
