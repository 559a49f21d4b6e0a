"""What people use, each thin over the Python API: the ``canfield`` command (``cli``) and the self-contained
HTML replay page (``replay_page``, its page in ``replay_page.html``)."""
