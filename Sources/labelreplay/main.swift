print("labelreplay")
