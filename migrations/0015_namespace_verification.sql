-- Namespaces are verified by an operator and claimed only by content.
--
-- verified_at is set by `eligo namespaces verify NS` once an operator has
-- checked that the owning tenant is who the namespace names (an agency's
-- own name, a programme it runs); it is cleared when the namespace changes
-- hands (`eligo namespaces transfer`). Rulesets and rulebooks carry
-- namespace_verified on the wire: true only when their namespace is
-- verified and their tenant owns it (see
-- docs/limits.md#slug-namespaces).
ALTER TABLE slug_namespaces
    ADD COLUMN verified_at timestamptz,
    ADD COLUMN verified_by text CHECK (verified_by IS NULL OR verified_at IS NOT NULL);

-- namespace_verified says whether a slug's namespace is verified and owned
-- by the tenant: what a ruleset or rulebook of that tenant under that slug
-- shows as namespace_verified.
CREATE FUNCTION namespace_verified(tenant text, slug text) RETURNS boolean
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT EXISTS (SELECT 1 FROM slug_namespaces n
                   WHERE n.namespace = split_part(slug, '/', 1) AND n.tenant_id = tenant AND n.verified_at IS NOT NULL)
$$;

-- A namespace is now claimed when content is published under it (a
-- ruleset cut, or a rulebook's first release), no longer by creating an
-- empty draft. Namespaces held only by drafts that never published are
-- released: the owner has no ruleset cut under them and no rulebook
-- there with a release.
DELETE FROM slug_namespaces n
WHERE NOT EXISTS (
        SELECT 1 FROM rulesets r
        WHERE r.tenant_id = n.tenant_id AND split_part(r.slug, '/', 1) = n.namespace)
  AND NOT EXISTS (
        SELECT 1 FROM rulebooks b
        WHERE b.tenant_id = n.tenant_id AND split_part(b.slug, '/', 1) = n.namespace
          AND b.current_release_id IS NOT NULL);
