"""The Streamlit page: the game at the table, kept in a game store."""
