package store_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/eligo/eligo/migrations"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

func TestMigrateTwiceOnEmptyDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.NewEmpty(t)

	all, err := store.LoadMigrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no migrations embedded")
	}

	first, err := store.Migrate(ctx, pool, migrations.FS)
	if err != nil {
		t.Fatalf("first migrate: %v", err)
	}
	if len(first.Applied) != len(all) {
		t.Fatalf("first migrate applied %v, want all %d files", first.Applied, len(all))
	}
	if len(first.RiverVersions) == 0 {
		t.Fatal("first migrate applied no River versions")
	}

	second, err := store.Migrate(ctx, pool, migrations.FS)
	if err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	if len(second.Applied) != 0 || len(second.RiverVersions) != 0 {
		t.Fatalf("second migrate changed the schema: %+v", second)
	}

	var recorded int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	if recorded != len(all) {
		t.Fatalf("schema_migrations has %d rows, want %d", recorded, len(all))
	}
	for _, table := range []string{"tenants", "api_keys", "audit_events", "river_job"} {
		var exists bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if !exists {
			t.Errorf("table %s missing after migrate", table)
		}
	}
}

func TestMigrateRollsBackAFailingFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.NewEmpty(t)
	fsys := fstest.MapFS{
		"0001_good.sql": {Data: []byte(`CREATE TABLE good (id int)`)},
		"0002_bad.sql":  {Data: []byte(`CREATE TABLE half (id int); SELECT no_such_function()`)},
	}
	if _, err := store.Migrate(ctx, pool, fsys); err == nil {
		t.Fatal("migrate with a failing file succeeded")
	}
	var half, good bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('half') IS NOT NULL, to_regclass('good') IS NOT NULL`).Scan(&half, &good); err != nil {
		t.Fatal(err)
	}
	if half {
		t.Error("the failing migration left table half behind")
	}
	if !good {
		t.Error("the migration before the failing one was not kept")
	}
}

func TestLoadMigrationsRejectsBadNames(t *testing.T) {
	t.Parallel()
	cases := map[string]fstest.MapFS{
		"no number":        {"init.sql": {Data: []byte("SELECT 1")}},
		"shared version":   {"0001_a.sql": {Data: []byte("SELECT 1")}, "001_b.sql": {Data: []byte("SELECT 1")}},
		"upper-case chars": {"0001_Init.sql": {Data: []byte("SELECT 1")}},
	}
	for name, fsys := range cases {
		if _, err := store.LoadMigrations(fsys); err == nil {
			t.Errorf("%s: LoadMigrations accepted %v", name, fsys)
		}
	}
}
