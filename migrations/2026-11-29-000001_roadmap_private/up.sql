-- A private roadmap (issue 18, Userorbit's `roadmaps.create {private}`). Its stages start private unless
-- they say otherwise; existing roadmaps stay public.
ALTER TABLE roadmaps ADD COLUMN is_private BOOLEAN NOT NULL DEFAULT FALSE;
