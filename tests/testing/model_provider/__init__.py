"""A scripted model provider on 127.0.0.1: the OpenAI, Anthropic and Gemini APIs a real agent CLI talks to, answering
each model call with the next step of a script and logging every request."""
