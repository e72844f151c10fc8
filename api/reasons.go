package api

// The reason codes (detail.reason_code, docs/api.md#errors) that the
// HTTP layer itself gives, each defined once: handlers, Route declarations
// and tests use these constants, never the spelled-out strings. A
// service's own refusals are defined once in that service, beside the
// code that refuses (authoring's Reason* constants, authoring/llm's
// provider codes, publish's Stage* gate names, worker's Reason*), and the
// api packages refer to them there.
const (
	ReasonMissingAPIKey                  = "missing_api_key"
	ReasonInvalidAPIKey                  = "invalid_api_key"
	ReasonAPIKeyExpired                  = "api_key_expired"
	ReasonDeniedMissingPermission        = "denied_missing_permission"
	ReasonReservedNamespace              = "reserved_namespace"
	ReasonSlugConflict                   = "slug_conflict"
	ReasonNamespaceOwned                 = "namespace_owned"        // 403: the namespace is another tenant's; says nothing of the slug
	ReasonNamespaceLimit                 = "tenant_namespace_limit" // 422: a publish would claim a namespace past the tenant's tier cap
	ReasonInvalidSlugFormat              = "invalid_slug_format"
	ReasonNonConservativePresenceOp      = "non_conservative_presence_op"
	ReasonRulesetRecordCorrupt           = "ruleset_record_corrupt"
	ReasonArtefactPublicVisibility       = "artefact_reference_public_visibility_forbidden"
	ReasonDailyQuotaExceeded             = "daily_quota_exceeded"
	ReasonRateLimitBackendUnavailable    = "rate_limit_backend_unavailable"
	ReasonDecisionLogBacklogged          = "decision_log_backlogged"
	ReasonBodyTooLarge                   = "body_too_large"
	ReasonBodyUnreadable                 = "body_unreadable"
	ReasonBodyTimeout                    = "body_timeout"
	ReasonUnsupportedMediaType           = "unsupported_media_type"
	ReasonTooManyConnections             = "too_many_connections"
	ReasonClientClosedRequest            = "client_closed_request"
	ReasonWorkTimeout                    = "work_deadline_exceeded"
	ReasonServerBusy                     = "server_busy"
	ReasonIdempotencyKeyInvalid          = "idempotency_key_invalid"
	ReasonIdempotencyKeyReused           = "idempotency_key_reused"
	ReasonIdempotencyKeyInUse            = "idempotency_key_in_use"
	ReasonInternalError                  = "internal_error"
	ReasonReleaseMemberUnresolved        = "release_member_unresolved"
	ReasonReleaseLabelAllocationFailed   = "release_label_allocation_failed"
	ReasonReleasePublicationFailed       = "release_publication_failed"
	ReasonCompositionPinned              = "composition_pinned"
	ReasonRulebookReleaseMissing         = "rulebook_release_missing"
	ReasonRulebookEmpty                  = "rulebook_empty" // /decide or a diff of a draft rulebook with no sections
	ReasonRulebookReleaseCorrupt         = "rulebook_release_corrupt"
	ReasonRateLimitExceededAnonymousBody = "rate_limit_exceeded" // the anonymous 429 body's error member
	ReasonMethodNotAllowed               = "method_not_allowed"
	ReasonCrossSiteRequest               = "cross_site_request"    // 403: a console session's cookie on a request from another origin
	ReasonCSRFTokenInvalid               = "csrf_token_invalid"    // 403: a console session's cookie without its X-CSRF-Token
	ReasonSignInRateLimited              = "sign_in_rate_limited"  // 429: too many console sign-ins from an address or for a key prefix
	ReasonEditorChecksLimited            = "editor_checks_limited" // 429: a tenant's checks and completions as its authors type, over their rate
	ReasonDiffUndecided                  = "diff_undecided"        // a ruleset or rulebook diff the solver could not settle in time
	ReasonNothingPublished               = "nothing_published"     // a project's draft diff with no published cut to compare with
	ReasonDatabaseUnavailable            = "database_unavailable"  // 503: a reference to resolve while the database cannot be reached
)
