"""Many deals at once: win-rate studies (``study``, local processes or a Dask cluster; their
``settings`` one value, built where a study starts), their result stores
(``stores``: ``sqlite``, one SQLite file; ``parquet``, a partitioned Parquet
dataset; ``inventory``, what either holds), two-phase estimates (``two_phase``), studies run to a
precision (``target``; ``priors``, the project's own studies a plan starts from before a store holds anything),
seed sets (``seeds``), and deals picked for apps (``pick``, written and verified as ``packs``)."""
