-- Tokens may expire: a token past its expiry time (fixed-width UTC text) is refused.
ALTER TABLE tokens ADD COLUMN expires TEXT;
