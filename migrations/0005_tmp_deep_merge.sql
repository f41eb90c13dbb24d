-- TEMPORARY (branch reads only): replaced by the db branch's generated routine migration.
CREATE OR REPLACE FUNCTION patchbay_jsonb_deep_merge(a jsonb, b jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE k text; v jsonb; result jsonb;
BEGIN
  result := CASE WHEN jsonb_typeof(a) = 'object' THEN a ELSE '{}'::jsonb END;
  IF b IS NULL OR jsonb_typeof(b) <> 'object' THEN RETURN result; END IF;
  FOR k, v IN SELECT key, value FROM jsonb_each(b) LOOP
    IF jsonb_typeof(v) = 'object' AND jsonb_typeof(result -> k) = 'object' THEN
      result := result || jsonb_build_object(k, patchbay_jsonb_deep_merge(result -> k, v));
    ELSE
      result := result || jsonb_build_object(k, v);
    END IF;
  END LOOP;
  RETURN result;
END $$;
CREATE AGGREGATE patchbay_jsonb_deep_merge_agg(jsonb) (SFUNC = patchbay_jsonb_deep_merge, STYPE = jsonb, INITCOND = '{}');
