"""What people use, each thin over the Python API: the ``canfield`` command (``cli``), the self-contained
HTML replay page (``replay_page``, its page in ``replay_page.html``) and the other games' (``game_page``),
and the local web app to play in (``web``, ``canfield play``)."""
