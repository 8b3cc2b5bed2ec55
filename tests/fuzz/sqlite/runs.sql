DELETE FROM model;
UPDATE runs SET log_z = 'nan', status = NULL;
