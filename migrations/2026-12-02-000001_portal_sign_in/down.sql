ALTER TABLE teams DROP COLUMN portal_sign_in_url;
