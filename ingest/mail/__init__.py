"""IMAP mailboxes followed the way folders are (issue 34).

``accounts``: the accounts (non-secret, ``DATA_DIR/mail/accounts.json``) and their passwords
(``DATA_DIR/mail/passwords.json``, mode 0600); ``keys``: catalogue paths of messages;
``transport``: TLS/STARTTLS connections through imapclient and the folders to follow;
``messages``: a fetched message into the catalogue through the e-mail loader; ``sync``: one
incremental sync of an account; ``follower``: IDLE or polling between syncs; ``commands``:
`hearth mail`.
"""
