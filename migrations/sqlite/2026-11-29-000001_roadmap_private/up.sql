-- A private roadmap (issue 18, Userorbit's `roadmaps.create {private}`), sqlite flavour. Kept in
-- step with ../../postgres/ (same version, same statements). Its stages start private unless
-- they say otherwise; existing roadmaps stay public.
ALTER TABLE roadmaps ADD COLUMN is_private BOOLEAN NOT NULL DEFAULT FALSE;
