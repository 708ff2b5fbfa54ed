"""What the tests share: servers they start on 127.0.0.1 (Phoenix, a scripted OpenAI-compatible
model, hostile HTTP endpoints, an OTLP receiver, the rotel collector), the real SDK with
in-memory exporters, the oracles hostile input must never break, and shared inputs. Test
modules import from here, never from each other (tests/project/test_test_layout.py)."""
