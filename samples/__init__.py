"""Sample files made in code, shared by the tests and the benchmarks (``tests/`` and ``bench/``
import them; ``bench/`` never imports ``tests/``): ``formats`` (a real file of every supported
kind), ``tables`` (tables with near-miss neighbours), ``images`` (a receipt to OCR), ``pdf`` (a
minimal text PDF writer) and ``mailserver`` (a throwaway dovecot on loopback, and messages for
it). Not part of the product: the wheel does not carry it; it is imported from a checkout (the
test runner and the bench scripts put the repository root on ``sys.path``)."""
