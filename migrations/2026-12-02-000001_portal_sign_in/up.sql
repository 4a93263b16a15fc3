-- Where a team's public portal sends visitors to sign in (issue 22, `teams.update
-- {portalSignInUrl}`); none by default.
ALTER TABLE teams ADD COLUMN portal_sign_in_url TEXT;
