// The error envelope every route answers with (DESIGN 4) and the one catalog of its codes: for clients
// (type-only) and for the typed error in errors.ts.

/** The one catalog of error codes: HTTP status and default message per code. */
export const ERROR_CATALOG = {
  bad_request: { status: 400, message: 'The request is invalid.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  validation_failed: { status: 400, message: 'A field has an invalid value.' },
  missing_credential_field: { status: 400, message: 'Send pairing_code or bootstrap_secret.' },
  no_route: { status: 400, message: 'No supported pool connects these tokens.' },
  price_impact_too_high: { status: 400, message: "The route's price impact is above maxPriceImpactBps." },
  unsupported_token: { status: 400, message: 'A token of this request cannot be routed.' },
  no_model: { status: 400, message: 'No model resolves for this workspace.' },
  model_lacks_vision: { status: 400, message: 'The model cannot read images or PDFs.' },
  unauthorized: { status: 401, message: 'A valid credential is required.' },
  invalid_pairing: { status: 401, message: 'The pairing code or bootstrap secret is invalid or expired.' },
  invalid_invite: { status: 401, message: 'The invite code is invalid, expired or already used.' },
  forbidden_host: { status: 403, message: 'The Host header is not allowed.' },
  forbidden_origin: { status: 403, message: 'The Origin is not allowed.' },
  owner_required: { status: 403, message: 'Only an owner device can do this; this device is a member.' },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  already_paired: { status: 409, message: 'The backend is already paired.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  already_exists: { status: 409, message: 'An item with that name already exists.' },
  config_invalid: { status: 409, message: 'The file failed to parse; fix it by hand first.' },
  turn_in_progress: { status: 409, message: 'A turn is already running in this session.' },
  backup_invalid: { status: 422, message: 'The snapshot is damaged or not a backup of this service; nothing was changed.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  attachment_too_large: { status: 413, message: 'The attachment is too large.' },
  unsupported_attachment: {
    status: 415,
    message: 'Attachments must be PNG, JPEG, GIF or WebP images, PDF documents or UTF-8 text files.',
  },
  unsupported_media_type: { status: 415, message: 'Request bodies must be JSON (Content-Type: application/json).' },
  too_many_requests: { status: 429, message: 'Too many failed attempts; wait before trying again.' },
  internal_error: { status: 500, message: 'Internal error.' },
  config_missing: { status: 500, message: 'A required setting is missing.' },
  upstream_error: { status: 500, message: 'The upstream service failed.' },
  storage_error: { status: 500, message: 'The data directory could not be written.' },
  upstream_unavailable: { status: 502, message: 'The upstream service could not be reached.' },
  shutting_down: { status: 503, message: 'The backend is shutting down.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}
