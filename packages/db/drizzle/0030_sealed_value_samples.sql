-- The start-up check of the key ring (docs/key-custody.md): a few sealed values of each sealed column,
-- across organizations, so an API or worker can see whether its APP_KEY opens what the database holds
-- before it serves. Ciphertexts only, at most p_per_column each; the column list is SEALED_COLUMNS
-- (packages/services/src/encryption/sealed-columns.ts), which the key-ring test holds this to.
CREATE FUNCTION weft_sealed_value_samples(p_per_column integer)
RETURNS TABLE (source text, sealed text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  (SELECT 'credentials.secret_ciphertext', secret_ciphertext FROM credentials
   ORDER BY created_at DESC LIMIT least(p_per_column, 10))
  UNION ALL
  (SELECT 'organization_modules.secret_ciphertext', secret_ciphertext FROM organization_modules
   ORDER BY updated_at DESC LIMIT least(p_per_column, 10))
  UNION ALL
  (SELECT 'webhooks.secret_ciphertext', secret_ciphertext FROM webhooks
   ORDER BY created_at DESC LIMIT least(p_per_column, 10))
  UNION ALL
  (SELECT 'users.totp_secret_ciphertext', totp_secret_ciphertext FROM users
   WHERE totp_secret_ciphertext IS NOT NULL ORDER BY created_at DESC LIMIT least(p_per_column, 10))
  UNION ALL
  (SELECT 'workflows.trigger_config.secret_ciphertext', trigger_config ->> 'secret_ciphertext' FROM workflows
   WHERE trigger_config ? 'secret_ciphertext' ORDER BY updated_at DESC LIMIT least(p_per_column, 10))
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_sealed_value_samples(integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_sealed_value_samples(integer) TO weft_app;
