"""Events' payloads and words: the typed payload every event type declares (``payload``), the
campaign's own event payloads (``campaign_payloads``), and every event's one line of words
(``summaries``). The games' payloads live in their packages (``*_events.py``).
"""
